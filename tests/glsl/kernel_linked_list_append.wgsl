struct Params {
    tiles_x: u32,
    tiles_y: u32,
    max_nodes: u32,
    fragment_count: u32,
}

struct Fragments {
    fragments: array<vec2<u32>>,
}

struct Node {
    value: u32,
    next: u32,
}

struct Nodes {
    node_count: atomic<u32>,
    overflow: atomic<u32>,
    pad0_: u32,
    pad1_: u32,
    nodes: array<Node>,
}

struct Heads {
    heads: array<atomic<u32>>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<uniform> params: Params;
@group(0) @binding(1) 
var<storage> frags: Fragments;
@group(0) @binding(3) 
var<storage, read_write> list: Nodes;
@group(0) @binding(2) 
var<storage, read_write> heads: Heads;

fn main_1(gl_NumWorkGroups_1: vec3<u32>) {
    var index: u32;
    var frag: vec2<u32>;
    var tx: u32;
    var ty: u32;
    var node: u32;
    var tile: u32;
    var previous_head: u32;
    var phi_74_: bool;
    var gl_NumWorkGroups_2: vec3<u32>;

    gl_NumWorkGroups_2 = gl_NumWorkGroups_1;
    let _e19 = gl_GlobalInvocationID_1[1u];
    let _e21 = gl_NumWorkGroups_2[0u];
    let _e25 = gl_GlobalInvocationID_1[0u];
    index = ((_e19 * (_e21 * 8u)) + _e25);
    let _e27 = index;
    let _e29 = params.fragment_count;
    if (_e27 >= _e29) {
        return;
    }
    let _e31 = index;
    let _e34 = frags.fragments[_e31];
    frag = _e34;
    let _e36 = frag[0u];
    tx = (_e36 & 65535u);
    let _e39 = frag[0u];
    ty = (_e39 >> bitcast<u32>(16i));
    let _e42 = tx;
    let _e44 = params.tiles_x;
    let _e45 = (_e42 >= _e44);
    phi_74_ = _e45;
    if !(_e45) {
        let _e47 = ty;
        let _e49 = params.tiles_y;
        phi_74_ = (_e47 >= _e49);
    }
    let _e52 = phi_74_;
    if _e52 {
        return;
    }
    let _e54 = atomicAdd((&list.node_count), 1u);
    node = _e54;
    let _e55 = node;
    let _e57 = params.max_nodes;
    if (_e55 >= _e57) {
        let _e60 = atomicAdd((&list.overflow), 1u);
        return;
    }
    let _e61 = ty;
    let _e63 = params.tiles_x;
    let _e65 = tx;
    tile = ((_e61 * _e63) + _e65);
    let _e67 = node;
    let _e69 = frag[1u];
    list.nodes[_e67].value = _e69;
    let _e73 = tile;
    let _e76 = node;
    let _e77 = atomicExchange((&heads.heads[_e73]), _e76);
    previous_head = _e77;
    let _e78 = node;
    let _e79 = previous_head;
    list.nodes[_e78].next = _e79;
    return;
}

@compute @workgroup_size(8, 8, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>, @builtin(num_workgroups) gl_NumWorkGroups: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1(gl_NumWorkGroups);
}
