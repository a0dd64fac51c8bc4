// A renderer's header, as N64 and video-codec compute code keeps one: the
// descriptor sets are named here, and one buffer is declared three times
// at one binding, as 32-, 16- and 8-bit words.
layout(set = 0, binding = 0, std430) buffer Words32 { uint data[]; } words32;
layout(set = 0, binding = 0, std430) buffer Words16 { uint16_t data[]; } words16;
layout(set = 0, binding = 0, std430) buffer Words8 { uint8_t data[]; } words8;
layout(set = 0, binding = 1, std430) readonly buffer Source { uint source[]; };
