import QtQuick
import Folio.Ui

// A bordered surface for grouping (monitor cards, model entries, settings).
Rectangle {
    color: Theme.surface
    radius: Theme.radius
    border.width: 1
    border.color: Theme.border
}
