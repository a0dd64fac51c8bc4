#version 450
// An r32f storage image without atomics stays a WGSL storage texture.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32f) uniform image2D field;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    imageStore(field, p, imageLoad(field, p) * 0.5 + vec4(float(p.x + p.y)));
}
// run: --groups 3,2 --image field=24x16:r32float:fill=1.5
