import QtQuick
import QtQuick.Controls.impl
import Folio.Ui

// One of the app's SVG icons, tinted.
IconImage {
    id: icon
    required property string name
    property int size: 18
    source: "qrc:/folio/icons/" + name + ".svg"
    sourceSize: Qt.size(size, size)
    width: size
    height: size
    color: Theme.textMuted
}
