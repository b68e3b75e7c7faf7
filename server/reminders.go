package server

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Reminders (docs/domain.md "Reminders"): the preferences, under the user
// settings with their scopes, and the reminders claimed for the user.
func (s *Server) registerReminderRoutes() {
	read, write := auth.Read(auth.ScopeSettingsWrite), auth.Write(auth.ScopeSettingsWrite)
	s.handle(http.MethodGet, "/api/v1/user-settings/reminders", read, s.getReminderSettings)
	s.handle(http.MethodPut, "/api/v1/user-settings/reminders", write, s.updateReminderSettings)
	s.handle(http.MethodGet, "/api/v1/reminders", read, s.listReminders)
}

func (s *Server) getReminderSettings(w http.ResponseWriter, r bunrouter.Request) error {
	st, err := s.ledger.ReminderSettings(r.Context(), userID(r))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Reminder settings retrieved", st)
	return nil
}

func (s *Server) updateReminderSettings(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.ReminderSettingsRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	st, err := s.ledger.UpdateReminderSettings(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Reminder settings updated", st)
	return nil
}

func (s *Server) listReminders(w http.ResponseWriter, r bunrouter.Request) error {
	items, err := s.ledger.Reminders(r.Context(), userID(r))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Reminders retrieved", items)
	return nil
}
