#version 450
// FAILS: whole-vector read of a `shared uvec4` whose components are used atomically, plus `+=` and swizzle store on a buffer uvec4.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer Stats {
    uvec4 v;
    uvec4 snap;
} b;

shared uvec4 sv;

void main() {
    if (gl_LocalInvocationIndex == 0u) {
        sv = uvec4(0u);
    }
    barrier();
    atomicAdd(sv.y, 1u);
    atomicAdd(b.v.x, 1u);
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        b.snap = sv;
        b.v.zw = uvec2(1u, 2u);
        b.v += uvec4(1u);
    }
}
// run: --groups 1 --buffer b=u32:8:iota
