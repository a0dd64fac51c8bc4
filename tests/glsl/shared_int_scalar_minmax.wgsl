struct Input {
    data: array<i32>,
}

struct Result {
    group_min: atomic<i32>,
    group_max: atomic<i32>,
    last_writer: atomic<i32>,
}

var<private> gl_LocalInvocationIndex_1: u32;
var<workgroup> s_min: atomic<i32>;
var<workgroup> s_max: atomic<i32>;
var<workgroup> s_last: atomic<i32>;
@group(0) @binding(0) 
var<storage> unnamed: Input;
var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(1) 
var<storage, read_write> unnamed_1: Result;

fn main_1() {
    var v: i32;

    let _e12 = gl_LocalInvocationIndex_1;
    if (_e12 == 0u) {
        atomicStore((&s_min), 2147483647i);
        atomicStore((&s_max), i32(-2147483648));
        atomicStore((&s_last), -1i);
    }
    workgroupBarrier();
    workgroupBarrier();
    let _e15 = gl_GlobalInvocationID_1[0u];
    let _e18 = unnamed.data[_e15];
    v = _e18;
    let _e19 = v;
    let _e20 = atomicMin((&s_min), _e19);
    let _e21 = v;
    let _e22 = atomicMax((&s_max), _e21);
    let _e23 = gl_LocalInvocationIndex_1;
    let _e25 = atomicExchange((&s_last), bitcast<i32>(_e23));
    workgroupBarrier();
    workgroupBarrier();
    let _e26 = gl_LocalInvocationIndex_1;
    if (_e26 == 0u) {
        let _e29 = atomicLoad((&s_min));
        let _e30 = atomicMin((&unnamed_1.group_min), _e29);
        let _e32 = atomicLoad((&s_max));
        let _e33 = atomicMax((&unnamed_1.group_max), _e32);
        let _e35 = atomicLoad((&s_last));
        let _e36 = atomicExchange((&unnamed_1.last_writer), _e35);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32, @builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
