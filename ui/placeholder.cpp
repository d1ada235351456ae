// Replaced by the desktop app's widgets.
