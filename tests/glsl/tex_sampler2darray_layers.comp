#version 450
// A 2D array texture: every layer summed at one texel; textureSize reports
// the layer count too (an override the runtime sets from the bound texture).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2DArray frames;
layout(set = 0, binding = 1) buffer Sum { vec4 sum[]; };
void main() {
    ivec3 size = textureSize(frames, 0);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, size.xy))) return;
    vec4 acc = vec4(0.0);
    for (int l = 0; l < size.z; ++l) acc += texelFetch(frames, ivec3(p, l), 0);
    sum[p.y * size.x + p.x] = acc;
}
// run: --groups 2,2 --texture frames=12x10x3:iota:fill=0,0.5,0.25,1 --buffer Sum=f32:480
