struct Buf {
    a: array<atomic<u32>, 4>,
    b: array<u32, 4>,
}

@group(0) @binding(0) 
var<storage, read_write> buf: Buf;
var<private> gl_LocalInvocationIndex_1: u32;

fn main_1() {
    let _e11 = gl_LocalInvocationIndex_1;
    let _e15 = atomicAdd((&buf.a[(_e11 % 4u)]), 1u);
    storageBarrier();
    workgroupBarrier();
    let _e16 = gl_LocalInvocationIndex_1;
    if (_e16 == 0u) {
        let _e23 = atomicLoad((&buf.a[0u]));
        let _e24 = atomicLoad((&buf.a[1u]));
        let _e25 = atomicLoad((&buf.a[2u]));
        let _e26 = atomicLoad((&buf.a[3u]));
        let _e27 = array<u32, 4>(_e23, _e24, _e25, _e26);
        buf.b[0i] = _e27[0];
        buf.b[1i] = _e27[1];
        buf.b[2i] = _e27[2];
        buf.b[3i] = _e27[3];
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(local_invocation_index) gl_LocalInvocationIndex: u32) {
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1();
}
