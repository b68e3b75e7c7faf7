package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

// pictureRow is an uploaded profile picture (profile_pictures).
type pictureRow struct {
	bun.BaseModel `bun:"table:profile_pictures"`
	Name          string `bun:",pk"`
	UserID        string
	ContentType   string
	Content       []byte
	CreatedAt     time.Time
}

func (l ledger) SavePictureFile(ctx context.Context, userID string, f finance.PictureFile) error {
	_, err := l.db.NewInsert().Model(&pictureRow{Name: f.Name, UserID: userID, ContentType: f.ContentType,
		Content: f.Content, CreatedAt: f.CreatedAt}).Exec(ctx)
	return err
}

func (l ledger) DeletePictureFiles(ctx context.Context, userID string) error {
	_, err := l.db.NewDelete().Model((*pictureRow)(nil)).Where("user_id = ?", userID).Exec(ctx)
	return err
}

func (l ledger) PictureFile(ctx context.Context, name string) (finance.PictureFile, error) {
	var row pictureRow
	if err := l.db.NewSelect().Model(&row).Where("name = ?", name).Scan(ctx); err != nil {
		return finance.PictureFile{}, notFound(err, "picture")
	}
	return finance.PictureFile{Name: row.Name, ContentType: row.ContentType, Content: row.Content, CreatedAt: row.CreatedAt}, nil
}

// PictureNames lists the names of every stored profile picture, in order
// (the tests' and the benchmark's look into the table).
func (db *DB) PictureNames(ctx context.Context) ([]string, error) {
	names := []string{}
	err := db.reader.NewSelect().Model((*pictureRow)(nil)).Column("name").Order("name").Scan(ctx, &names)
	return names, err
}

// pictureFileName matches the names the server gave uploads, with their
// types: nothing else in a picture folder is imported.
var pictureFileName = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(png|jpg|webp)$`)

var pictureExtTypes = map[string]string{"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}

// ImportPictures brings the profile pictures that earlier versions kept as
// files in dir (the data directory's media/profile-pictures) into the
// database, in one transaction, and returns how many it brought. Only the
// files a user's record names and the database does not hold yet are read,
// so a second call, or one on a database that has them all, imports nothing
// and reads no file. A named file that is missing is left out (its user's
// picture stays missing, as it was). The files are left where they are: an
// earlier version, or a restore of its backup, still finds them.
func (db *DB) ImportPictures(ctx context.Context, dir string) (int, error) {
	var wanted []struct {
		ID   string
		File string
	}
	err := db.reader.NewSelect().TableExpr("users AS u").ColumnExpr("u.id, u.profile_picture_file AS file").
		Where("u.profile_picture_file IS NOT NULL").
		Where("NOT EXISTS (SELECT 1 FROM profile_pictures AS p WHERE p.name = u.profile_picture_file)").
		Scan(ctx, &wanted)
	if err != nil || len(wanted) == 0 {
		return 0, err
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, fmt.Errorf("profile pictures in %s: %w", dir, err)
	}
	defer root.Close()
	var rows []pictureRow
	for _, w := range wanted {
		m := pictureFileName.FindStringSubmatch(w.File)
		if m == nil {
			continue
		}
		b, err := root.ReadFile(w.File)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return 0, fmt.Errorf("profile picture %s: %w", filepath.Join(dir, w.File), err)
		}
		created := time.Now()
		if info, err := root.Stat(w.File); err == nil {
			created = info.ModTime() // the Last-Modified it was served with
		}
		rows = append(rows, pictureRow{Name: w.File, UserID: w.ID, ContentType: pictureExtTypes[m[1]], Content: b,
			CreatedAt: created.UTC().Truncate(time.Microsecond)})
	}
	if len(rows) == 0 {
		return 0, nil
	}
	n := 0
	err = db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		n = 0 // a write on Postgres may run again
		for i := range rows {
			// One at a time: the batch of every picture could pass the
			// driver's limit on one statement's size.
			res, err := tx.NewInsert().Model(&rows[i]).On("CONFLICT DO NOTHING").Exec(ctx)
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k > 0 {
				n++
			}
		}
		return nil
	})
	return n, err
}
