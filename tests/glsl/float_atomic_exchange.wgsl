struct Previous {
    previous: array<f32>,
}

struct Latest {
    latest: array<atomic<i32>, 16>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> latest: Latest;
@group(0) @binding(1) 
var<storage, read_write> prev: Previous;

fn main_1() {
    var i: u32;
    var value: f32;
    var old: f32;

    let _e10 = gl_GlobalInvocationID_1[0u];
    i = _e10;
    let _e11 = i;
    value = (f32(_e11) * 0.5f);
    let _e14 = i;
    let _e18 = value;
    let _e20 = atomicExchange((&latest.latest[(_e14 % 16u)]), bitcast<i32>(_e18));
    old = bitcast<f32>(_e20);
    let _e22 = i;
    let _e23 = old;
    prev.previous[_e22] = _e23;
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
