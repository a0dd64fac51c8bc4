struct Data {
    count: atomic<u32>,
    signed_sum: atomic<i32>,
    values: array<u32>,
}

var<private> gl_LocalInvocationIndex_1: u32;
var<workgroup> s_max: atomic<u32>;
@group(0) @binding(0) 
var<storage, read_write> data: Data;
var<private> gl_GlobalInvocationID_1: vec3<u32>;

fn main_1() {
    var lid: u32;
    var v: u32;

    let _e9 = gl_LocalInvocationIndex_1;
    lid = _e9;
    let _e10 = lid;
    if (_e10 == 0u) {
        atomicStore((&s_max), 0u);
    }
    workgroupBarrier();
    let _e13 = gl_GlobalInvocationID_1[0u];
    let _e16 = data.values[_e13];
    v = _e16;
    let _e17 = v;
    let _e18 = atomicMax((&s_max), _e17);
    let _e20 = v;
    let _e24 = atomicAdd((&data.signed_sum), (bitcast<i32>((_e20 & 7u)) - 3i));
    workgroupBarrier();
    let _e25 = lid;
    if (_e25 == 0u) {
        let _e28 = atomicLoad((&s_max));
        let _e29 = atomicAdd((&data.count), _e28);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32, @builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
