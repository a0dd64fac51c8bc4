#version 450
// Point-cloud rasterizer in OpenGL style: a loose transform, packed
// depth/index in a 64-bit-free way (depth in the high bits of a uint),
// atomicMin per pixel.
layout(local_size_x = 256) in;

uniform mat4 u_transform;
uniform uvec2 u_resolution;
uniform uint u_pointCount;

layout(std430, binding = 0) readonly buffer Points { vec4 points[]; };
layout(std430, binding = 1) buffer Framebuffer { uint depthIndex[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_pointCount) return;
    vec4 clip = u_transform * vec4(points[i].xyz, 1.0);
    if (clip.w <= 0.0) return;
    vec3 ndc = clip.xyz / clip.w;
    if (any(greaterThan(abs(ndc), vec3(1.0)))) return;
    uvec2 pixel = uvec2((ndc.xy * 0.5 + 0.5) * vec2(u_resolution));
    pixel = min(pixel, u_resolution - 1u);
    uint depth = uint((ndc.z * 0.5 + 0.5) * 65535.0);
    atomicMin(depthIndex[pixel.y * u_resolution.x + pixel.x], (depth << 16) | (i & 0xffffu));
}
