#version 450
// A lock taken by compare-and-swap around a read-modify-write of a
// volatile buffer. With the lock word left taken (as `check`'s random
// variant leaves it) no invocation ever enters: on Mesa 25's lavapipe the
// dispatch never ends, and the context that ran it must still be dropped
// without waiting for it.
layout(local_size_x = 32) in;

layout(set = 0, binding = 0) buffer volatile Totals {
    uint sum;
    uint visits;
} totals;

layout(set = 0, binding = 1) buffer Mutex {
    uint lock;
} mutex;

void main() {
    bool done = false;
    while (!done) {
        if (atomicCompSwap(mutex.lock, 0u, 1u) == 0u) {
            totals.sum += gl_GlobalInvocationID.x;
            totals.visits += 1u;
            memoryBarrierBuffer();
            atomicExchange(mutex.lock, 0u);
            done = true;
        }
    }
}
