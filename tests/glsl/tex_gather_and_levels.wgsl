struct Out {
    levels: i32,
    gathered: array<vec4<f32>>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed: Out;
@group(0) @binding(0) 
var mipped: texture_2d<f32>;
@group(0) @binding(2) 
var mipped_sampler: sampler;

fn main_1() {
    var p: vec2<i32>;

    let _e11 = gl_GlobalInvocationID_1;
    p = bitcast<vec2<i32>>(_e11.xy);
    let _e15 = p[1u];
    let _e18 = p[0u];
    let _e20 = p;
    let _e26 = textureGather(1, mipped, mipped_sampler, ((vec2<f32>(_e20) + vec2(0.5f)) / vec2(4f)));
    unnamed.gathered[((_e15 * 4i) + _e18)] = _e26;
    let _e29 = p;
    if all((_e29 == vec2<i32>(0i, 0i))) {
        let _e32 = textureNumLevels(mipped);
        unnamed.levels = i32(_e32);
    }
    return;
}

@compute @workgroup_size(4, 4, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
