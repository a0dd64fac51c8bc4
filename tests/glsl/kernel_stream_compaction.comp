#version 450
// Realistic kernel: stream compaction of live particles with one global atomicAdd per workgroup (shared offset broadcast).
layout(local_size_x = 128) in;

struct Particle {
    vec4 position;
    vec4 velocity;
};

layout(set = 0, binding = 0) uniform Params {
    uint count;
    float dt;
} params;

layout(set = 0, binding = 1) readonly buffer In {
    Particle particles[];
} src;

layout(set = 0, binding = 2) buffer Out {
    uint alive_count;
    uint dead_count;
    uint pad0;
    uint pad1;
    Particle particles[];
} dst;

shared uint s_local_count;
shared uint s_base;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint lid = gl_LocalInvocationIndex;
    if (lid == 0u) {
        s_local_count = 0u;
    }
    barrier();

    bool alive = false;
    Particle p;
    if (i < params.count) {
        p = src.particles[i];
        p.velocity.w -= params.dt;          // w holds remaining life
        p.position.xyz += p.velocity.xyz * params.dt;
        alive = p.velocity.w > 0.0;
    }

    uint local_slot = 0u;
    if (alive) {
        local_slot = atomicAdd(s_local_count, 1u);
    }
    barrier();

    if (lid == 0u) {
        s_base = atomicAdd(dst.alive_count, s_local_count);
        atomicAdd(dst.dead_count, min(params.count - min(params.count, gl_WorkGroupID.x * 128u), 128u) - s_local_count);
    }
    barrier();

    if (alive) {
        dst.particles[s_base + local_slot] = p;
    }
}
// run: --groups 3 --uniform count=300 --uniform dt=1000.0 --buffer src=f32:2400:iota --buffer dst=f32:2404
// compare: dst=multiset: each workgroup's base (global atomicAdd) and each particle's local slot (shared atomicAdd) depend on the order invocations ran in; the counts and the set of surviving particles are fixed
