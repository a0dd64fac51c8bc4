#version 450
// Combined samplers passed to helper functions, as post-processing code
// writes its taps: a plain sampler and an element of a sampler array, through
// two levels of calls. Each invocation writes its own element, rows as
// wide as the dispatch, so that no two race under any dispatch.
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform sampler2D sceneColor;
layout(set = 0, binding = 1) uniform sampler2D lookups[2];
layout(set = 0, binding = 3, std430) buffer Result { vec4 pixels[]; };

vec4 tap(sampler2D src, vec2 uv, ivec2 texel) {
    return textureLod(src, uv, 0.0) * 0.75 + texelFetch(src, texel, 0) * 0.25;
}

vec4 cross4(sampler2D src, vec2 uv, ivec2 texel) {
    vec2 step = 1.0 / vec2(textureSize(src, 0));
    return (tap(src, uv + vec2(step.x, 0.0), texel) + tap(src, uv - vec2(step.x, 0.0), texel)) * 0.5;
}

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    uint width = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    vec2 uv = (vec2(p) + 0.5) / 8.0;
    ivec2 texel = ivec2(p / 2u);
    pixels[p.y * width + p.x] = cross4(sceneColor, uv, texel) + tap(lookups[1], uv, texel) * 0.5;
}
// run: --groups 1 --texture sceneColor=4x4:iota --texture lookups[1]=4x4:fill=0.25,0.5,0.75,1
// run: --sampler sceneColor=nearest,clamp --sampler lookups[1]=nearest,clamp --buffer Result=f32:256
