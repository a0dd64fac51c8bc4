#version 450
// atomicCompSwap spin lock in a loop guarding a non-atomic critical section; released with atomicExchange.
layout(local_size_x = 32) in;

layout(set = 0, binding = 0) buffer Guarded {
    uint lock;
    uint entries;
    uint total;
    uint order[];
} g;

void main() {
    uint id = gl_GlobalInvocationID.x;
    bool done = false;
    // Loop structured so a lane that holds the lock never waits on its neighbours.
    for (uint attempt = 0u; attempt < 100000u && !done; ++attempt) {
        if (atomicCompSwap(g.lock, 0u, 1u) == 0u) {
            memoryBarrierBuffer();
            uint slot = g.entries;
            g.order[slot] = id;
            g.entries = slot + 1u;
            g.total = g.total + id;
            memoryBarrierBuffer();
            atomicExchange(g.lock, 0u);
            done = true;
        }
    }
}
// One workgroup: llvmpipe's GL stops a waiter after 65 535 loop
// iterations, which a waiter in another workgroup uses up whenever the
// machine deschedules the holder's thread.
// run: --groups 1 --buffer Guarded=u32:[0,0,1000,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// compare: g=multiset: invocations take the lock in whatever order they win it, so order[] is a permutation of the ids
// no native: stalls natively on lavapipe: with several subgroups per workgroup and memory barriers inside the lock, Vulkan gives the spinning lanes no forward-progress guarantee
