import dataclasses


@dataclasses.dataclass
class Config:
    features: int = 12
    hidden: int = 32
    num_classes: int = 5
    batch: int = 4
    learning_rate: float = 0.1
