#version 450
// atomicExchange with both int and uint overloads; old values written back with plain stores.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer Slots {
    uint owner;
    int last_signed;
    uint previous_owner[64];
    int previous_signed[64];
} slots;

void main() {
    uint id = gl_LocalInvocationIndex;
    uint prevOwner = atomicExchange(slots.owner, id + 1u);
    int prevSigned = atomicExchange(slots.last_signed, -int(id));
    slots.previous_owner[id] = prevOwner;
    slots.previous_signed[id] = prevSigned;
}
// run: --groups 1 --buffer Slots=u32:130:fill=77
// compare: Slots=multiset: each atomicExchange hands back the value the previous invocation left, so owner/last_signed and the previous_* arrays hold the initial value and every id, each once, in an order the invocations ran in
