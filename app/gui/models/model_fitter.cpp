#include "app/gui/models/model_fitter.h"


#include "engine/backends/backend_factory.h"
#include "engine/hub/blob_download.h"

namespace folio::app {

ModelFitter::ModelFitter(QObject* parent) : QObject(parent) {}
ModelFitter::~ModelFitter() = default;

QString ModelFitter::deviceText() const {
    if (!ready_) return tr("reading the memory of this computer…");
    if (budget_.gpu)
        return tr("%1, %2 (%3 usable)").arg(QString::fromStdString(budget_.device),
                                             QString::fromStdString(hub::human_bytes(double(budget_.total))),
                                             QString::fromStdString(hub::human_bytes(double(budget_.usable))));
    return tr("CPU and RAM, %1 available").arg(QString::fromStdString(hub::human_bytes(double(budget_.usable))));
}

void ModelFitter::setContext(int tokens) {
    if (tokens < 0 || tokens == context_) return;
    context_ = tokens;
    emit changed();
}

QVariantList ModelFitter::contextChoices() const { return {4096, 8192, 32768, 0}; }

void ModelFitter::probe(const QString& backend) {
    const int number = ++probes_;
    const BackendKind kind = backend == "cpu" ? BackendKind::Cpu : backend == "cuda" ? BackendKind::Cuda : BackendKind::Auto;
    tasks_.run([kind] { return read_device_memory(kind); },
               [this, number](const DeviceMemoryReading& r) {
                   if (number != probes_) return;  // a newer probe was asked for
                   rawTotal_ = r.total;
                   rawFree_ = r.free;
                   setBudget(hub::memory_budget(r.device, r.gpu, r.total, r.free, oursInUse_));
               });
}

void ModelFitter::setBudget(const hub::MemoryBudget& budget) {
    budget_ = budget;
    ready_ = true;
    emit changed();
}

void ModelFitter::setOursInUse(quint64 bytes) {
    if (bytes == oursInUse_) return;
    oursInUse_ = bytes;
    if (ready_ && rawTotal_ > 0) setBudget(hub::memory_budget(budget_.device, budget_.gpu, rawTotal_, rawFree_, oursInUse_));
}

hub::FitEstimate ModelFitter::estimate(const hub::ModelSummary& model) const {
    if (!ready_) return {};
    return hub::estimate_fit(model, budget_, context_);
}

}  // namespace folio::app
