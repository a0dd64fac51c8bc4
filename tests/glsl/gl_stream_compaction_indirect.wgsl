struct gl_DefaultUniformBlock {
    u_n: u32,
    u_threshold: u32,
}

struct Input {
    values: array<u32>,
}

struct Output {
    kept: array<u32>,
}

struct Indirect {
    groupsX: u32,
    groupsY: u32,
    groupsZ: u32,
}

struct gl_AtomicCounterBlock_0_ {
    keptCount: atomic<u32>,
}

struct gl_AtomicCounterBlock_1_ {
    groupsDone: atomic<u32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(5) 
var<uniform> unnamed: gl_DefaultUniformBlock;
@group(0) @binding(0) 
var<storage> unnamed_1: Input;
@group(0) @binding(1) 
var<storage, read_write> unnamed_2: Output;
@group(0) @binding(3) 
var<storage, read_write> unnamed_3: gl_AtomicCounterBlock_0_;
var<private> gl_LocalInvocationIndex_1: u32;
@group(0) @binding(4) 
var<storage, read_write> unnamed_4: gl_AtomicCounterBlock_1_;
@group(0) @binding(2) 
var<storage, read_write> unnamed_5: Indirect;

fn main_1(gl_NumWorkGroups_1: vec3<u32>) {
    var i: u32;
    var done: u32;
    var phi_41_: bool;
    var gl_NumWorkGroups_2: vec3<u32>;

    gl_NumWorkGroups_2 = gl_NumWorkGroups_1;
    let _e16 = gl_GlobalInvocationID_1[0u];
    i = _e16;
    let _e17 = i;
    let _e19 = unnamed.u_n;
    let _e20 = (_e17 < _e19);
    phi_41_ = _e20;
    if _e20 {
        let _e21 = i;
        let _e24 = unnamed_1.values[_e21];
        let _e26 = unnamed.u_threshold;
        phi_41_ = (_e24 >= _e26);
    }
    let _e29 = phi_41_;
    if _e29 {
        let _e31 = atomicAdd((&unnamed_3.keptCount), 1u);
        let _e32 = i;
        let _e35 = unnamed_1.values[_e32];
        unnamed_2.kept[_e31] = _e35;
    }
    workgroupBarrier();
    let _e38 = gl_LocalInvocationIndex_1;
    if (_e38 == 0u) {
        let _e41 = atomicAdd((&unnamed_4.groupsDone), 1u);
        done = _e41;
        let _e42 = done;
        let _e44 = gl_NumWorkGroups_2[0u];
        if (_e42 == (_e44 - 1u)) {
            let _e48 = atomicLoad((&unnamed_3.keptCount));
            unnamed_5.groupsX = ((_e48 + 63u) / 64u);
            unnamed_5.groupsY = 1u;
            unnamed_5.groupsZ = 1u;
        }
    }
    return;
}

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>, @builtin(local_invocation_index) gl_LocalInvocationIndex: u32, @builtin(num_workgroups) gl_NumWorkGroups: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    gl_LocalInvocationIndex_1 = gl_LocalInvocationIndex;
    main_1(gl_NumWorkGroups);
}
