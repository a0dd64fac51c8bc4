#version 310 es
// OpenGL ES 3.1 occlusion culling: a depth pyramid read from a buffer,
// two counters (kept / rejected) at one binding.
precision highp float;
precision highp int;
layout(local_size_x = 64) in;

uniform uint u_boxCount;
uniform uvec2 u_pyramidSize;

layout(std430, binding = 0) readonly buffer Boxes { vec4 boxes[]; };   // xy min, zw max (uv)
layout(std430, binding = 1) readonly buffer Depth { float nearest[]; };
layout(std430, binding = 2) writeonly buffer Kept { uint kept[]; };
layout(binding = 0, offset = 0) uniform atomic_uint keptCount;
layout(binding = 0, offset = 4) uniform atomic_uint rejectedCount;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_boxCount) return;
    vec4 b = boxes[i];
    uvec2 texel = uvec2(b.xy * vec2(u_pyramidSize));
    texel = min(texel, u_pyramidSize - 1u);
    float occluder = nearest[texel.y * u_pyramidSize.x + texel.x];
    if (b.z <= occluder) {
        kept[atomicCounterIncrement(keptCount)] = i;
    } else {
        atomicCounterIncrement(rejectedCount);
    }
}
