#version 450
// A work-stealing loop that leaves the shader from inside the loop when an
// invocation's queue runs dry, with a barrier each round: the return is
// inside the loop, where predication would change which rounds the others
// wait for, so it stays, and browsers refuse the barrier.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Queues { uint remaining[]; };
shared uint taken[32];

void main() {
    uint lane = gl_LocalInvocationID.x;
    for (uint round = 0u; round < 4u; round++) {
        if (remaining[lane] == 0u) {
            return;
        }
        remaining[lane] -= 1u;
        taken[lane] = round;
        barrier();
    }
}
