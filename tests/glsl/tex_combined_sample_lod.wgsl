struct Out {
    samples: array<vec4<f32>>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed: Out;
@group(0) @binding(0) 
var src: texture_2d<f32>;
@group(0) @binding(2) 
var src_sampler: sampler;

fn main_1() {
    var i: u32;
    var uv: vec2<f32>;

    let _e14 = gl_GlobalInvocationID_1[0u];
    i = _e14;
    let _e15 = i;
    let _e19 = i;
    uv = (vec2<f32>((f32((_e15 % 4u)) + 0.25f), (f32((_e19 / 4u)) + 0.75f)) / vec2(4f));
    let _e26 = i;
    let _e27 = uv;
    let _e28 = textureSampleLevel(src, src_sampler, _e27, 0f);
    let _e29 = uv;
    let _e30 = textureSampleLevel(src, src_sampler, _e29, 0f);
    let _e33 = uv;
    let _e34 = textureSampleLevel(src, src_sampler, _e33, 0f);
    unnamed.samples[_e26] = ((_e28 + (_e30 * 0.5f)) + (_e34 * 0.25f));
    return;
}

@compute @workgroup_size(16, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
