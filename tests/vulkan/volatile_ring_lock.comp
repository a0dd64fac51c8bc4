#version 450
// A critical section guarded by a spin lock, in the style of engines'
// lock helpers: the lock is taken and released inside one loop iteration
// (so that invocations of one subgroup never wait on each other), and the
// data it guards is a `volatile` buffer read and written plainly. Every
// section passes the ring once, each slot one more than the one before it:
// from a ring of 0, 1, …, n - 1, after K sections slot i holds K * n + i,
// whatever their order, as long as no section's reads or writes escape the
// lock.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer volatile Ring { uint slots[]; } ring;
layout(set = 0, binding = 1) buffer Mutex { uint held; uint sections; } mtx;

#define WITH_LOCK(word) \
    for (uint lock_state = 1u; lock_state != 2u;) \
        if (lock_state == 0u) { atomicExchange(word, 0u); lock_state = 2u; } \
        else if ((lock_state = atomicCompSwap(word, 0u, 1u)) == 0u)

void pass_the_ring() {
    uint n = uint(ring.slots.length());
    for (uint i = 0u; i < n; ++i)
        ring.slots[i] = ring.slots[(i + n - 1u) % n] + 1u;
    mtx.sections += 1u;
}

void main() {
    WITH_LOCK(mtx.held)
        pass_the_ring();
}

// One workgroup: llvmpipe's GL stops a waiter after 65 535 loop
// iterations, which a waiter in another workgroup uses up whenever the
// machine deschedules the holder's thread (tests/spin_lock.rs runs four
// workgroups where no such cap applies).
// run: --groups 1 --buffer Ring=u32:48:iota --buffer Mutex=u32:2
