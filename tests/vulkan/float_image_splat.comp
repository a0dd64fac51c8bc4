#version 450
// Splatting weights into an r32f accumulation image and keeping the
// nearest depth per texel, as point renderers do.
#extension GL_EXT_shader_atomic_float : require
#extension GL_EXT_shader_atomic_float2 : require
layout(local_size_x = 64) in;

layout(set = 0, binding = 0, r32f) uniform image2D weights;
layout(set = 0, binding = 1, r32f) uniform image2D nearest;
layout(set = 0, binding = 2, r32f) uniform image2D farthest;
layout(set = 0, binding = 3, r32f) uniform image2D last;
layout(set = 0, binding = 4) readonly buffer Splats { vec4 splats[]; };

void main() {
    vec4 s = splats[gl_GlobalInvocationID.x];
    ivec2 at = ivec2(s.xy);
    imageAtomicAdd(weights, at, s.w);
    imageAtomicMin(nearest, at, s.z);
    imageAtomicMax(farthest, at, s.z);
    imageAtomicExchange(last, at, float(gl_GlobalInvocationID.x));
}
