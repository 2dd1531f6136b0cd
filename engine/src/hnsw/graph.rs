//! CSR adjacency per level: owned ([`Graph`], what the builder produces and the writer
//! stores) and borrowed ([`GraphView`], what search walks over the memory map).

/// One level of an owned graph.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Level {
    /// Ascending ids of the nodes on this level; empty on level 0, where every node is.
    pub nodes: Vec<u32>,
    /// CSR offsets: node `i` of this level has neighbours `neighbors[offsets[i]..offsets[i+1]]`.
    pub offsets: Vec<u64>,
    /// Neighbour node ids (global ids, = document rows), nearest first.
    pub neighbors: Vec<u32>,
}

/// An owned HNSW graph in the on-disk shape.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Graph {
    /// Levels, bottom (0) first.
    pub levels: Vec<Level>,
    /// Node where searches start; it is on the top level.
    pub entry_point: u32,
}

impl Graph {
    /// The graph over no nodes: level 0 only, with offsets `[0]` and no neighbours; the
    /// entry point (0) is never visited because searches stop at `n = 0`.
    pub fn empty() -> Graph {
        Graph { levels: vec![Level { nodes: Vec::new(), offsets: vec![0], neighbors: Vec::new() }], entry_point: 0 }
    }

    /// A borrowed view of this graph.
    pub fn view(&self, n_nodes: usize) -> GraphView<'_> {
        let levels = self
            .levels
            .iter()
            .enumerate()
            .map(|(l, lv)| LevelView {
                nodes: (l > 0).then_some(lv.nodes.as_slice()),
                offsets: &lv.offsets,
                neighbors: &lv.neighbors,
            })
            .collect();
        GraphView { levels, entry_point: self.entry_point, n_nodes }
    }
}

/// A borrowed level: slices straight from the index file.
#[derive(Debug, Clone, Copy)]
pub struct LevelView<'a> {
    /// Ascending node ids on levels ≥ 1; `None` on level 0.
    pub nodes: Option<&'a [u32]>,
    /// CSR offsets, one more than the nodes on the level.
    pub offsets: &'a [u64],
    /// Neighbour ids.
    pub neighbors: &'a [u32],
}

impl<'a> LevelView<'a> {
    /// Neighbours of global node `node` on this level; empty when the node is not on the
    /// level or the offsets are out of range (a corrupt file never panics a search).
    /// O(1) on level 0, O(log n_l) above.
    #[inline]
    pub fn neighbors(&self, node: u32) -> &'a [u32] {
        let slot = match self.nodes {
            None => node as usize,
            Some(nodes) => match nodes.binary_search(&node) {
                Ok(i) => i,
                Err(_) => return &[],
            },
        };
        let (Some(&a), Some(&b)) = (self.offsets.get(slot), self.offsets.get(slot + 1)) else {
            return &[];
        };
        self.neighbors.get(a as usize..b as usize).unwrap_or(&[])
    }

    /// [`LevelView::neighbors`] that tells damage from absence: `Some(&[])` when `node` is
    /// not on the level, `None` when its offsets are out of range or decrease (a damaged
    /// file). O(1) on level 0, O(log n_l) above.
    #[inline]
    pub fn checked_neighbors(&self, node: u32) -> Option<&'a [u32]> {
        let slot = match self.nodes {
            None => node as usize,
            Some(nodes) => match nodes.binary_search(&node) {
                Ok(i) => i,
                Err(_) => return Some(&[]),
            },
        };
        let (&a, &b) = (self.offsets.get(slot)?, self.offsets.get(slot + 1)?);
        self.neighbors.get(usize::try_from(a).ok()?..usize::try_from(b).ok()?)
    }

    /// Number of nodes on this level.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the level has no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A borrowed HNSW graph.
#[derive(Debug, Clone)]
pub struct GraphView<'a> {
    /// Levels, bottom first.
    pub levels: Vec<LevelView<'a>>,
    /// Where searches start.
    pub entry_point: u32,
    /// Number of nodes (= vectors); neighbour ids ≥ this are ignored.
    pub n_nodes: usize,
}

impl GraphView<'_> {
    /// Checks the CSR invariants of every level: offsets start at 0, never decrease and end
    /// at the neighbour count; node lists ascend; every id is < `n_nodes`; the entry point
    /// is on the top level. O(nodes + edges).
    ///
    /// # Errors
    /// A description of the first violation.
    pub fn check(&self) -> Result<(), String> {
        for (l, lv) in self.levels.iter().enumerate() {
            check_level(l, lv, self.n_nodes)?;
        }
        let top = self.levels.len().saturating_sub(1);
        let on_top = match self.levels.get(top).and_then(|lv| lv.nodes) {
            Some(nodes) => nodes.binary_search(&self.entry_point).is_ok(),
            None => (self.entry_point as usize) < self.n_nodes,
        };
        if self.n_nodes > 0 && !on_top {
            return Err(format!("entry point {} is not on the top level", self.entry_point));
        }
        Ok(())
    }
}

fn check_level(l: usize, lv: &LevelView<'_>, n: usize) -> Result<(), String> {
    let expected = lv.nodes.map_or(n, <[u32]>::len);
    if lv.offsets.len() != expected + 1 {
        return Err(format!("level {l}: {} offsets for {expected} nodes", lv.offsets.len()));
    }
    if lv.offsets.first() != Some(&0) || lv.offsets.windows(2).any(|w| w[0] > w[1]) {
        return Err(format!("level {l}: offsets are not ascending from 0"));
    }
    if lv.offsets.last().copied() != Some(lv.neighbors.len() as u64) {
        return Err(format!("level {l}: offsets do not end at the neighbour count"));
    }
    if let Some(nodes) = lv.nodes
        && (nodes.windows(2).any(|w| w[0] >= w[1]) || nodes.iter().any(|&x| x as usize >= n))
    {
        return Err(format!("level {l}: node list is not ascending or out of range"));
    }
    if lv.neighbors.iter().any(|&x| x as usize >= n) {
        return Err(format!("level {l}: neighbour id out of range"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Graph {
        Graph {
            levels: vec![
                Level { nodes: vec![], offsets: vec![0, 1, 3, 4], neighbors: vec![1, 0, 2, 1] },
                Level { nodes: vec![1, 2], offsets: vec![0, 1, 2], neighbors: vec![2, 1] },
            ],
            entry_point: 2,
        }
    }

    #[test]
    fn neighbours_per_level() {
        let g = tiny();
        let v = g.view(3);
        assert_eq!(v.levels[0].neighbors(1), &[0, 2]);
        assert_eq!(v.levels[1].neighbors(2), &[1]);
        assert_eq!(v.levels[1].neighbors(0), &[] as &[u32]);
        assert_eq!(v.levels[0].neighbors(99), &[] as &[u32]);
        v.check().unwrap();
    }

    #[test]
    fn check_finds_broken_invariants() {
        let mut g = tiny();
        g.levels[0].neighbors[0] = 7;
        assert!(g.view(3).check().unwrap_err().contains("out of range"));
        let mut g = tiny();
        g.levels[0].offsets[1] = 5;
        assert!(g.view(3).check().is_err());
        let mut g = tiny();
        g.entry_point = 0;
        assert!(g.view(3).check().unwrap_err().contains("entry point"));
    }
}
