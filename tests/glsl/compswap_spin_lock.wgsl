struct Guarded {
    lock: atomic<u32>,
    entries: u32,
    total: u32,
    order: array<u32>,
}

var<private> gl_GlobalInvocationID_1: vec3<u32>;
@group(0) @binding(0) 
var<storage, read_write> g: Guarded;

fn main_1() {
    var id: u32;
    var done: bool;
    var attempt: u32;
    var slot: u32;
    var atomic_compare_old: u32;

    let _e13 = gl_GlobalInvocationID_1[0u];
    id = _e13;
    done = false;
    attempt = 0u;
    loop {
        let _e14 = attempt;
        let _e16 = done;
        if ((_e14 < 100000u) && !(_e16)) {
            loop {
                let _e42 = atomicCompareExchangeWeak((&g.lock), 0u, 1u);
                atomic_compare_old = _e42.old_value;
                if (_e42.exchanged || (_e42.old_value != 0u)) {
                    break;
                }
            }
            let _e21 = atomic_compare_old;
            if (_e21 == 0u) {
                let _e24 = g.entries;
                slot = _e24;
                let _e25 = slot;
                let _e26 = id;
                g.order[_e25] = _e26;
                let _e29 = slot;
                g.entries = (_e29 + 1u);
                let _e33 = g.total;
                let _e34 = id;
                g.total = (_e33 + _e34);
                let _e38 = atomicExchange((&g.lock), 0u);
                done = true;
            }
            continue;
        } else {
            break;
        }
        continuing {
            let _e39 = attempt;
            attempt = (_e39 + bitcast<u32>(1i));
        }
    }
    return;
}

@compute @workgroup_size(32, 1, 1) 
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
