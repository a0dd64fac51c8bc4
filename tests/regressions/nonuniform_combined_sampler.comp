#version 460
#extension GL_EXT_nonuniform_qualifier : require
// nonuniformEXT(sampler2D(t, s)), as bindless renderers wrap every combined
// sampler they build, copies it (OpCopyObject), which naga's reader refused
// ("invalid id"). A 2x2 max reduction of an 8x8 depth texture through it:
// with texel (x, y) = 8y + x, o[4y + x] = 8(2y + 1) + 2x + 1.
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform texture2D depthTex;
layout(set = 0, binding = 1) uniform sampler nearestClamp;
layout(set = 0, binding = 2, std430) buffer Out { float o[]; };

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  vec2 uv = (vec2(p * 2) + 0.5) / 8.0;
  float near = max(textureLodOffset(nonuniformEXT(sampler2D(depthTex, nearestClamp)), uv, 0.0, ivec2(0, 0)).r,
                   textureLodOffset(nonuniformEXT(sampler2D(depthTex, nearestClamp)), uv, 0.0, ivec2(1, 0)).r);
  float far = max(textureLodOffset(nonuniformEXT(sampler2D(depthTex, nearestClamp)), uv, 0.0, ivec2(0, 1)).r,
                  textureLodOffset(nonuniformEXT(sampler2D(depthTex, nearestClamp)), uv, 0.0, ivec2(1, 1)).r);
  o[p.y * 4 + p.x] = max(near, far);
}
