#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_ARB_gpu_shader_int64 : require
// An indirect-dispatch check in the style of validation layers' kernels:
// a header shared by several kernels declares a buffer reference type
// (here the trace-rays arguments) that this kernel never uses, so the
// module declares physical addresses and nothing reaches them. The kernel
// clamps each recorded dispatch to the device's limit and counts the ones
// it had to change.
// run: --groups 2 --buffer Indirect=u32:[1,1,1,70000,2,1,5,80000,3,0,1,1,65535,65535,65535,65536,1,1,9,9,9,4,3,2] --buffer Report=u32:3
layout(local_size_x = 4) in;

struct TraceRaysArgs { uint width; uint height; uint depth; };
layout(buffer_reference, scalar) buffer TraceRaysRef { TraceRaysArgs args; };

layout(set = 0, binding = 0, scalar) buffer Indirect { uvec3 dispatches[]; };
layout(set = 0, binding = 1) buffer Report { uint clamped; uint empty; uint largest_x; };

const uint LIMIT = 65535u;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec3 d = dispatches[i];
    uvec3 fixed_d = min(d, uvec3(LIMIT));
    if (fixed_d != d) {
        atomicAdd(clamped, 1u);
        dispatches[i] = fixed_d;
    }
    if (d.x * d.y * d.z == 0u) {
        atomicAdd(empty, 1u);
    }
    atomicMax(largest_x, fixed_d.x);
}
