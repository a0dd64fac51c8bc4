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

    let _e12 = gl_GlobalInvocationID_1;
    p = (bitcast<vec2<i32>>(_e12.xy) + vec2(1i));
    let _e17 = p;
    let _e18 = textureLoad(heights, _e17, 0i);
    let _e20 = p;
    let _e21 = textureLoad(heights, _e20, 0i);
    dx = (_e18.x - _e21.x);
    let _e24 = p;
    let _e26 = textureLoad(heights, (_e24 + vec2<i32>(0i, 1i)), 0i);
    let _e28 = p;
    let _e29 = textureLoad(heights, _e28, 0i);
    dy = (_e26.x - _e29.x);
    let _e33 = gl_GlobalInvocationID_1[1u];
    let _e36 = gl_GlobalInvocationID_1[0u];
    let _e38 = dx;
    let _e39 = dy;
    unnamed.slope[((_e33 * 8u) + _e36)] = vec2<i32>(_e38, _e39);
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
