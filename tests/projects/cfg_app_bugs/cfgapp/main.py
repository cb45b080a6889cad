"""The command line: flags, then training from the default config."""

from absl import app, flags

from cfgapp import train
from cfgapp.configs import default

FLAGS = flags.FLAGS
flags.DEFINE_integer("steps", 2, "training steps")


def main(argv):
    del argv
    config = default.get_config()
    train.train_and_evaluate(config, FLAGS.steps)


def run():
    FLAGS(["main"])
    main([])


if __name__ == "__main__":
    app.run(main)
