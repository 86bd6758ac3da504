pragma circom 2.0.0;

include "circomlib/circuits/sha256/sha256.circom";

// SHA-256 of a 512-bit message (two blocks after padding); the digest's bits are public.
template Sha256TwoBlocks() {
    signal input in[512];
    signal output out[256];
    component h = Sha256(512);
    for (var i = 0; i < 512; i++) {
        h.in[i] <== in[i];
    }
    for (var i = 0; i < 256; i++) {
        out[i] <== h.out[i];
    }
}

component main = Sha256TwoBlocks();
