use rensa::board::rules;
use rensa::{Board, Color, Game, Pos, Rule};

fn b(black: &[(u8, u8)], white: &[(u8, u8)]) -> Board {
    let mut b = Board::new(15, 15).unwrap();
    for &(x, y) in black {
        b.place(Pos::new(x, y), Color::Black).unwrap();
    }
    for &(x, y) in white {
        b.place(Pos::new(x, y), Color::White).unwrap();
    }
    b
}

#[test]
fn smoke_vectors() {
    let fake = b(
        &[(7, 5), (9, 5), (8, 6), (10, 6), (9, 8), (7, 9)],
        &[(0, 0), (14, 0), (0, 14), (14, 14), (1, 1), (13, 13)],
    );
    assert!(!rules::is_forbidden(&fake, Pos::new(9, 6)));
    let df = b(&[(3, 7), (4, 7), (5, 7), (9, 7), (10, 7), (11, 7)], &[]);
    assert!(rules::is_forbidden(&df, Pos::new(7, 7)));
    let df2 = b(&[(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)], &[]);
    assert!(rules::is_forbidden(&df2, Pos::new(7, 7)));
    let ol = b(&[(2, 7), (3, 7), (4, 7), (6, 7), (7, 7)], &[]);
    assert!(rules::is_forbidden(&ol, Pos::new(5, 7)));
    let ft = b(&[(4, 7), (5, 7), (6, 7), (7, 8), (7, 9)], &[]);
    assert!(!rules::is_forbidden(&ft, Pos::new(7, 7)));
    let f5 = b(
        &[
            (3, 7),
            (4, 7),
            (5, 7),
            (6, 7),
            (7, 8),
            (7, 9),
            (7, 10),
            (8, 8),
            (9, 9),
            (10, 10),
        ],
        &[],
    );
    assert!(!rules::is_forbidden(&f5, Pos::new(7, 7)));
    let f5o = b(
        &[
            (3, 7),
            (4, 7),
            (5, 7),
            (6, 7),
            (7, 5),
            (7, 6),
            (7, 8),
            (7, 9),
            (7, 10),
        ],
        &[],
    );
    assert!(!rules::is_forbidden(&f5o, Pos::new(7, 7)));
    // renju vector
    let g = Game::from_moves(
        15,
        15,
        Rule::Renju,
        &rensa::pos::parse_algebraic("h8h9i7i9h10i6i11i12").unwrap(),
    )
    .unwrap();
    assert_eq!(g.forbidden_points(), vec![Pos::new(6, 8)]);
}
