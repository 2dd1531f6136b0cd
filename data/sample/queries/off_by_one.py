def last_k_scores(scores, k):
    result = []
    for i in range(len(scores) - k, len(scores) - 1):
        result.append(scores[i])
    return result
