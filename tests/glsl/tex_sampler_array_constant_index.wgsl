struct Out {
    blended: array<vec4<f32>>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed: Out;
@group(0) @binding(0) 
var layers_u005b_0_u005d: texture_2d<f32>;
@group(0) @binding(2) 
var layers_u005b_0_u005d_sampler: sampler;
@group(0) @binding(3) 
var layers_u005b_1_u005d: texture_2d<f32>;
@group(0) @binding(5) 
var layers_u005b_2_u005d: texture_2d<f32>;
@group(0) @binding(6) 
var layers_u005b_2_u005d_sampler: sampler;

fn main_1() {
    var i: u32;
    var uv: vec2<f32>;

    let _e17 = gl_GlobalInvocationID_1[0u];
    i = _e17;
    let _e18 = i;
    let _e22 = i;
    uv = (vec2<f32>((f32((_e18 % 4u)) + 0.5f), (f32((_e22 / 4u)) + 0.5f)) / vec2(4f));
    let _e29 = i;
    let _e30 = uv;
    let _e31 = textureSampleLevel(layers_u005b_0_u005d, layers_u005b_0_u005d_sampler, _e30, 0f);
    let _e33 = i;
    let _e36 = i;
    let _e40 = textureLoad(layers_u005b_1_u005d, vec2<i32>(bitcast<i32>((_e33 % 4u)), bitcast<i32>((_e36 / 4u))), 0i);
    let _e43 = uv;
    let _e44 = textureSampleLevel(layers_u005b_2_u005d, layers_u005b_2_u005d_sampler, _e43, 0f);
    unnamed.blended[_e29] = (((_e31 * 0.5f) + (_e40 * 0.25f)) + (_e44 * 0.25f));
    return;
}

@compute @workgroup_size(16, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
