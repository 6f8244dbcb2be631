import QtQuick
import QtQuick.Controls
import Folio.Ui

// A combo box whose open list stays readable: the Basic style draws the highlighted entry in the
// palette's highlightedText (white in the light scheme: the colour of text on the accent) over its
// light hover colour, which left the chosen entry all but invisible.
ComboBox {
    palette.highlightedText: Theme.text
}
