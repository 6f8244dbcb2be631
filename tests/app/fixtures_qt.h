#pragma once
// Qt Test twin of tests/support/fixtures.h: fixtures come from FOLIO_FIXTURES (set by ctest); a
// missing one fails the test loudly, never skips it.
#include <QDir>
#include <QString>
#include <QtTest>

namespace folio::test {

inline QString qtFixturePath(const QString& relative) {
    const QString root = qEnvironmentVariable("FOLIO_FIXTURES");
    if (root.isEmpty()) {
        qFatal("FOLIO_FIXTURES is not set; run the tests through ctest (it sets it from the CMake variable "
               "FOLIO_FIXTURES, default tests/fixtures)");
    }
    const QString path = QDir(root).absoluteFilePath(relative);
    if (!QFileInfo::exists(path)) {
        qFatal("missing test fixture %s (FOLIO_FIXTURES=%s); configure with -DFOLIO_FIXTURES=/path/to/fixtures",
               qPrintable(path), qPrintable(root));
    }
    return path;
}

}  // namespace folio::test
