#version 450
#extension GL_EXT_scalar_block_layout : require
// Blocks that declare only vectors, at explicit offsets past a reserved
// header, as robustness tests and engines that share a struct's tail with
// the host write them: nothing before `tint` but 16 bytes the shader never
// names, and `bias` 32 bytes on from `scale`. The translation pads the
// gaps with vectors of the block's own kind (the module has no 4-byte
// scalar type to pad with) so that every member stays at its offset.
// run: --groups 1 --buffer Params=f32:[9,9,9,9,0.5,1.5,2.5,3.5,2,4,6,8]
// run: --buffer Extra=f32:[1,2,0,0,0,0,0,0,0,0,0,0,3,4] --buffer Out=f32:16
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, scalar) readonly buffer Params
{
    layout(offset = 16) vec4 tint;
    vec4 scale;
};
layout(set = 0, binding = 1, std430) readonly buffer Extra
{
    layout(offset = 0) vec2 origin;
    layout(offset = 48) vec2 bias;
};
layout(set = 0, binding = 2, std430) writeonly buffer Out { mat4 data; };

void main()
{
    data = mat4(tint * scale, vec4(origin, bias), tint + scale, vec4(bias, origin));
}
