pragma Singleton
import QtQuick
import Folio

// Colours, type and spacing for every view. Light and dark follow the system (ColorScheme).
QtObject {
    readonly property bool dark: ColorScheme.dark

    // Surfaces
    readonly property color window: dark ? "#18191c" : "#f6f6f4"
    readonly property color sidebar: dark ? "#131417" : "#eeede9"
    readonly property color surface: dark ? "#202125" : "#ffffff"
    readonly property color surfaceAlt: dark ? "#26272c" : "#f3f2ef"
    readonly property color hover: dark ? "#2a2c31" : "#e7e6e2"
    readonly property color selected: dark ? "#2f3240" : "#e2e4f6"
    readonly property color border: dark ? "#2e3035" : "#e2e0da"
    readonly property color borderStrong: dark ? "#3c3e45" : "#cfccc4"
    // Text
    readonly property color text: dark ? "#e9e9ec" : "#1d1d1b"
    readonly property color textMuted: dark ? "#9b9ca3" : "#6a6964"
    readonly property color textFaint: dark ? "#6d6e75" : "#9a9892"
    // Accent and states
    readonly property color accent: dark ? "#8b97ff" : "#4f5fe0"
    readonly property color accentHover: dark ? "#a0aaff" : "#4351c9"
    readonly property color accentSoft: dark ? "#2c3050" : "#e6e9fc"
    readonly property color accentText: dark ? "#11131f" : "#ffffff"
    readonly property color userBubble: dark ? "#2b2f45" : "#e9ecfb"
    readonly property color codeBackground: dark ? "#141518" : "#f5f4f1"
    readonly property color codeHeader: dark ? "#1b1c20" : "#ebeae6"
    readonly property color danger: dark ? "#ff7b72" : "#c93c37"
    readonly property color dangerSoft: dark ? "#3a2224" : "#fbe9e7"
    readonly property color warning: dark ? "#e3b341" : "#9a6700"
    readonly property color warningSoft: dark ? "#3a3020" : "#fcf3dc"
    readonly property color success: dark ? "#56d364" : "#1f883d"
    // Plot colours
    readonly property color plotDecode: accent
    readonly property color plotPrefill: dark ? "#d2a8ff" : "#8250df"
    readonly property color plotKv: dark ? "#56d4bc" : "#0f8a74"
    readonly property color plotBatch: dark ? "#f0a35e" : "#c4660f"
    readonly property color plotMemory: dark ? "#7ab7ff" : "#2f6fc0"
    readonly property color gridLine: dark ? "#2a2c31" : "#ebe9e4"

    // Type
    readonly property string monoFamily: "DejaVu Sans Mono"
    readonly property int fontSmall: 12
    readonly property int fontBody: 14
    readonly property int fontLarge: 16
    readonly property int fontTitle: 20
    readonly property int fontDisplay: 28

    // Spacing and shape
    readonly property int xs: 4
    readonly property int s: 8
    readonly property int m: 12
    readonly property int l: 16
    readonly property int xl: 24
    readonly property int xxl: 32
    readonly property int radius: 10
    readonly property int radiusSmall: 6
    readonly property int radiusLarge: 16
    readonly property int sidebarWidth: 272
    readonly property int readingWidth: 780
    readonly property int animation: 120
}
