#version 450
// Buffer blocks without an instance name: members (`hits`, `misses`, `log[]`) used directly in atomics.
layout(local_size_x = 64) in;

layout(binding = 0) buffer Counters {
    uint hits;
    uint misses;
};

layout(binding = 1) buffer Log {
    uint log[];
};

layout(binding = 2) readonly buffer Queries {
    uint queries[];
};

void main() {
    uint q = queries[gl_GlobalInvocationID.x];
    if ((q & 1u) == 0u) {
        uint slot = atomicAdd(hits, 1u);
        log[slot] = q;
    } else {
        atomicAdd(misses, 1u);
    }
}
// run: --groups 4 --buffer Counters=u32:[3,5] --buffer Log=u32:131 --buffer Queries=u32:256:iota
// compare: Log=multiset: each even query lands in the slot its atomicAdd(hits) returned, in whatever order the invocations ran
