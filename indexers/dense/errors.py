"""The error every embedding backend raises when its model cannot be loaded here."""


class ModelUnavailable(RuntimeError):
    """The embedding model named in the config or manifest cannot be loaded here."""
