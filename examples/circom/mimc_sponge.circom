pragma circom 2.0.0;

include "circomlib/circuits/mimcsponge.circom";

// Proves knowledge of two field elements whose MiMC sponge hash (220 rounds) is public.
template MimcSpongeHash() {
    signal input a;
    signal input b;
    signal output hash;
    component h = MiMCSponge(2, 220, 1);
    h.ins[0] <== a;
    h.ins[1] <== b;
    h.k <== 0;
    hash <== h.outs[0];
}

component main = MimcSpongeHash();
