# Reported: https://github.com/google-research/reincarnating_rl/issues/5
# Parameters made for one environment's number of actions are loaded into a network built for another.
# class: flax_params
import flax.linen as nn
import jax
import jax.numpy as jnp


class QNetwork(nn.Module):
    num_actions: int
    hidden: int = 512

    @nn.compact
    def __call__(self, obs):
        h = nn.relu(nn.Dense(self.hidden)(obs))
        return nn.Dense(self.num_actions)(h)


def restore_and_act(teacher_actions, student_actions, obs_dim):
    obs = jnp.ones((1, obs_dim))
    teacher_params = QNetwork(num_actions=teacher_actions).init(jax.random.key(0), obs)
    student = QNetwork(num_actions=student_actions)
    return student.apply(teacher_params, obs)  # bug: params were made with teacher_actions outputs


def run():
    return restore_and_act(6, 4, 16)


if __name__ == "__main__":
    run()
