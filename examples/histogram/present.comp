#version 450
// Writes the image before and after equalization, side by side, into an
// rgba8 storage image.
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) readonly buffer Pixels { uint pixels[]; };
layout(set = 0, binding = 1) readonly buffer Out { uint equalized[]; };
layout(set = 0, binding = 2, rgba8) uniform writeonly image2D picture;
void main() {
    ivec2 size = imageSize(picture);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, size))) return;
    int w = size.x / 2;
    uint i = uint(p.y * w + p.x % w);
    uint v = p.x < w ? pixels[i] : equalized[i];
    imageStore(picture, p, vec4(vec3(float(v) / 255.0), 1.0));
}
