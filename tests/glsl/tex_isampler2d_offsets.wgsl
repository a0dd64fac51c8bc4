struct Slopes {
    slope: array<vec2<i32>>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var heights: texture_2d<i32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed: Slopes;

fn main_1() {
    var p: vec2<i32>;
    var dx: i32;
    var dy: i32;

    let _e15 = gl_GlobalInvocationID_1;
    p = (bitcast<vec2<i32>>(_e15.xy) + vec2(1i));
    let _e20 = p;
    let _e22 = textureLoad(heights, (_e20 + vec2<i32>(1i, 0i)), 0i);
    let _e24 = p;
    let _e26 = textureLoad(heights, (_e24 + vec2<i32>(-1i, 0i)), 0i);
    dx = (_e22.x - _e26.x);
    let _e29 = p;
    let _e31 = textureLoad(heights, (_e29 + vec2<i32>(0i, 1i)), 0i);
    let _e33 = p;
    let _e35 = textureLoad(heights, (_e33 + vec2<i32>(0i, -1i)), 0i);
    dy = (_e31.x - _e35.x);
    let _e39 = gl_GlobalInvocationID_1[1u];
    let _e42 = gl_GlobalInvocationID_1[0u];
    let _e44 = dx;
    let _e45 = dy;
    unnamed.slope[((_e39 * 8u) + _e42)] = vec2<i32>(_e44, _e45);
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
