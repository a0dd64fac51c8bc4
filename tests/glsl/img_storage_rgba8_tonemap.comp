#version 450
// A tone mapper: reads an rgba16f storage image, writes an rgba8 one.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform readonly image2D hdr;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D ldr;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, imageSize(hdr)))) return;
    vec3 c = imageLoad(hdr, p).rgb;
    imageStore(ldr, p, vec4(c / (1.0 + c), 1.0));
}
// run: --groups 2,2 --image hdr=12x10:fill=0.5,1,3,1 --image ldr=12x10
