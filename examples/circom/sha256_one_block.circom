pragma circom 2.0.0;

include "circomlib/circuits/sha256/sha256.circom";

// SHA-256 of a 440-bit message (one 512-bit block after padding); the digest's bits are public.
template Sha256OneBlock() {
    signal input in[440];
    signal output out[256];
    component h = Sha256(440);
    for (var i = 0; i < 440; i++) {
        h.in[i] <== in[i];
    }
    for (var i = 0; i < 256; i++) {
        out[i] <== h.out[i];
    }
}

component main = Sha256OneBlock();
