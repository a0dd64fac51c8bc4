struct Input {
    values: array<i32>,
}

struct Sums {
    bucket_sum: array<atomic<i32>, 16>,
    before_last: array<i32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage> src: Input;
@group(0) @binding(1) 
var<storage, read_write> sums: Sums;

fn main_1() {
    var i: u32;
    var v: i32;
    var bucket: u32;
    var previous: i32;

    let _e10 = gl_GlobalInvocationID_1[0u];
    i = _e10;
    let _e11 = i;
    if (_e11 >= bitcast<u32>(bitcast<i32>(arrayLength((&src.values))))) {
        return;
    }
    let _e17 = i;
    let _e20 = src.values[_e17];
    v = _e20;
    let _e21 = v;
    bucket = (bitcast<u32>(abs(_e21)) % 16u);
    let _e25 = bucket;
    let _e28 = v;
    let _e29 = atomicAdd((&sums.bucket_sum[_e25]), _e28);
    previous = _e29;
    let _e30 = i;
    let _e31 = previous;
    sums.before_last[_e30] = _e31;
    return;
}

@compute @workgroup_size(128, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
