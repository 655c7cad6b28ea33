# The arithmetic of the Bittensor SDK (bittensor/utils/weight_utils.py) on plain Python floats,
# for the expected values of test/scoring/emitWeights.test.ts:
#   python3 test/scoring/sdk/weight_utils.py > test/scoring/sdk/emitted.json

U16_MAX = 65535
def convert_weights_and_uids_for_emit(uids, weights):
    # bittensor/utils/weight_utils.py, without numpy: the same arithmetic on Python floats.
    if min(weights) < 0: raise ValueError
    if min(uids) < 0: raise ValueError
    if sum(weights) == 0: return [], []
    max_weight = float(max(weights))
    weights = [float(v) / max_weight for v in weights]
    wv, wu = [], []
    for w, u in zip(weights, uids):
        v = round(float(w) * int(U16_MAX))
        if v != 0:
            wv.append(v); wu.append(u)
    return wu, wv


def convert_weight_uids_and_vals_to_tensor(n, uids, weights):
    # The SDK's read-back: each integer at its uid, divided by their sum.
    row = [0.0] * n
    for u, w in zip(uids, weights):
        row[u] = float(w)
    total = sum(row)
    return [w / total for w in row] if total > 0 else row


def cases():
    """The table of test/scoring/emitWeights.test.ts: uids, floats in, as the SDK emits them."""
    many = [((i * 7919) % 1000) / 256000 for i in range(256)]
    return {
        "ties at the maximum": ([7, 3, 5], [0.4, 0.4, 0.2]),
        "halves after scaling": ([0, 1, 2, 3, 4], [1.0, 2.5 / 65535, 0.5 / 65535, 3.5 / 65535, 0.5]),
        "all zero": ([0, 4], [0.0, 0.0]),
        "a single uid": ([9], [0.001]),
        "256 uids": (list(range(256)), many),
        "tiny against the maximum": ([1, 2], [1.0, 1e-6]),
    }


if __name__ == "__main__":
    import json

    out = {}
    for name, (uids, floats) in cases().items():
        order = sorted(range(len(uids)), key=lambda i: uids[i])
        su = [uids[i] for i in order]
        sf = [floats[i] for i in order]
        u, w = convert_weights_and_uids_for_emit(su, sf)
        out[name] = {"uids": uids, "floats": floats, "emitted": {"uids": u, "weights": w}}
    print(json.dumps(out))
