#version 460
#extension GL_EXT_nonuniform_qualifier : require
// A bindless lookup: an unsized texture array indexed nonuniformEXT,
// sampled through a two-element sampler array indexed at run time. Without
// binding arrays in the translation the sampler array is a switch, and the
// native run's copy of the module made each case's texture and sampled
// image without their NonUniform decorations, so lavapipe read every
// invocation's texture as the first one's. With texture k filled with
// k + 1: o[i] = (i % 4) + 1.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform texture2D albedo[];
layout(set = 0, binding = 1) uniform sampler filters[2];
layout(set = 1, binding = 0, std430) writeonly buffer Out { float o[]; };

void main() {
  uint id = gl_GlobalInvocationID.x;
  uint tex = id % 4u;
  uint filt = id / 4u;
  o[id] = textureLod(nonuniformEXT(sampler2D(albedo[tex], filters[filt])), vec2(0.5), 0.0).r;
}
