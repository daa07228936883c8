"""Placeholder: `toolaudit calibrate` is being written."""
