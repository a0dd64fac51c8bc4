struct Flags {
    ready: atomic<u32>,
    payload: array<u32, 64>,
    seen: atomic<u32>,
}

var<private> gl_LocalInvocationIndex_1: u32;
var<workgroup> s_count: atomic<u32>;
@group(0) @binding(0) 
var<storage, read_write> f: Flags;

fn main_1() {
    var lid: u32;

    let _e7 = gl_LocalInvocationIndex_1;
    lid = _e7;
    let _e8 = lid;
    if (_e8 == 0u) {
        atomicStore((&s_count), 0u);
    }
    workgroupBarrier();
    workgroupBarrier();
    let _e10 = lid;
    let _e11 = lid;
    f.payload[_e10] = (_e11 * 3u);
    storageBarrier();
    let _e16 = atomicAdd((&f.ready), 1u);
    let _e17 = atomicAdd((&s_count), 1u);
    storageBarrier();
    workgroupBarrier();
    workgroupBarrier();
    storageBarrier();
    workgroupBarrier();
    let _e18 = lid;
    if (_e18 == 0u) {
        let _e21 = atomicLoad((&s_count));
        let _e22 = atomicMax((&f.seen), _e21);
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1();
}
