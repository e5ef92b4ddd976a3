"""Errors users can act on. Each message names what is wrong and where, on one line."""


class FoodtagError(Exception):
    """Base class: the command-line tools print these as one line, without a traceback."""


class ModelError(FoodtagError):
    """A model, checkpoint, weight package or ONNX file cannot be used."""


class ImageError(FoodtagError):
    """An image cannot be read: missing, empty, corrupt, not an image, or too large."""
