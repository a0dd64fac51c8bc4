#version 450
// Applies the equalization lookup table to every pixel.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer Pixels { uint pixels[]; };
layout(set = 0, binding = 1) readonly buffer Lut { uint lut[256]; };
layout(set = 0, binding = 2) writeonly buffer Out { uint equalized[]; };
layout(set = 0, binding = 3) uniform Params { uint count; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < count) equalized[i] = lut[pixels[i] & 255u];
}
