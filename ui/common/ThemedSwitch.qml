import QtQuick
import QtQuick.Controls
import Folio.Ui

// A switch whose "on" reads as on: the Basic style fills a checked track with the palette's dark
// colour (the theme's muted grey, the look of a disabled control); here it is the accent.
Switch {
    palette.dark: Theme.accent
}
