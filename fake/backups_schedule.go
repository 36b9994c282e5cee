package fake

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/dbplatform/platform-go"
)

// retention is how long a backup is kept after it completes.
type retention struct {
	value int
	unit  platform.RetentionUnit
}

// retentionUnits are the units a retention is written in.
var retentionUnits = []platform.RetentionUnit{
	platform.RetentionHour, platform.RetentionDay, platform.RetentionWeek,
	platform.RetentionMonth, platform.RetentionYear,
}

// check validates a retention: a known unit and a value from 1 to 1000.
func (r retention) check() error {
	if r.unit == "" {
		return unprocessable("retention_unit is required: %s", backupEnumText(retentionUnits))
	}
	if !slices.Contains(retentionUnits, r.unit) {
		return unprocessable("retention_unit %q is not %s", r.unit, backupEnumText(retentionUnits))
	}
	if r.value < 1 || r.value > maxRetentionValue {
		return unprocessable("retention_value must be from 1 to %d, got %d", maxRetentionValue, r.value)
	}
	return nil
}

// after returns the end of the retention that starts at t. Months and
// years are calendar months and years.
func (r retention) after(t time.Time) time.Time {
	switch r.unit {
	case platform.RetentionHour:
		return t.Add(time.Duration(r.value) * time.Hour)
	case platform.RetentionDay:
		return t.AddDate(0, 0, r.value)
	case platform.RetentionWeek:
		return t.AddDate(0, 0, 7*r.value)
	case platform.RetentionMonth:
		return t.AddDate(0, r.value, 0)
	}
	return t.AddDate(r.value, 0, 0)
}

// schedule is when a backup policy runs, in UTC. Each frequency unit counts
// within the period that holds it, starting again with each period:
//
//   - hour, every N: at minute MM of the hours of each day that are a
//     multiple of N hours after HH (HH, HH+N, ... wrapping past midnight).
//   - day, every N: at HH:MM on days 1, 1+N, 1+2N, ... of each month.
//   - week, every N: at HH:MM on weekday `day` in weeks 0, N, 2N, ... of
//     each month, week w being days 7w+1 to 7w+7.
//   - month, every N: at HH:MM on weekday `day` of week `week` of months
//     January, January+N, ... of each year.
//
// So every 6 hours at 02:30 runs at 02:30, 08:30, 14:30 and 20:30; every
// month on day 0 of week 0 runs on the first Sunday of each month.
type schedule struct {
	unit         platform.FrequencyUnit
	every        int
	hour, minute int
	day, week    int // weekday (0 is Sunday) and week of the month
}

// frequencyUnits are the units a frequency is written in.
var frequencyUnits = []platform.FrequencyUnit{
	platform.FrequencyHour, platform.FrequencyDay, platform.FrequencyWeek, platform.FrequencyMonth,
}

// maxFrequency is the largest frequency_value of a unit: one period.
func maxFrequency(u platform.FrequencyUnit) int {
	switch u {
	case platform.FrequencyHour:
		return 24
	case platform.FrequencyDay:
		return 31
	case platform.FrequencyWeek:
		return 4
	}
	return 12
}

// usesDay and usesWeek say which units take schedule_day and schedule_week.
func usesDay(u platform.FrequencyUnit) bool {
	return u == platform.FrequencyWeek || u == platform.FrequencyMonth
}

func usesWeek(u platform.FrequencyUnit) bool { return u == platform.FrequencyMonth }

// scheduleTimeRe is HH:MM on a 24-hour clock.
var scheduleTimeRe = regexp.MustCompile(`^([01][0-9]|2[0-3]):([0-5][0-9])$`)

// parseScheduleTime reads "HH:MM".
func parseScheduleTime(v string) (hour, minute int, err error) {
	m := scheduleTimeRe.FindStringSubmatch(v)
	if m == nil {
		return 0, 0, unprocessable("schedule_time %q is not a time of day in HH:MM format (00:00 to 23:59)", v)
	}
	hour, _ = strconv.Atoi(m[1])
	minute, _ = strconv.Atoi(m[2])
	return hour, minute, nil
}

// timeOfDay formats the schedule's time as "HH:MM".
func (sc schedule) timeOfDay() string { return fmt.Sprintf("%02d:%02d", sc.hour, sc.minute) }

// maxScheduleSearch bounds the days next looks through; every schedule has
// a slot within a year and a month.
const maxScheduleSearch = 400

// next returns the first time after t at which the schedule runs.
func (sc schedule) next(t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	for range maxScheduleSearch {
		for _, at := range sc.slotsOn(day) {
			if at.After(t) {
				return at
			}
		}
		day = day.AddDate(0, 0, 1)
	}
	return time.Time{}
}

// slotsOn returns the times, in order, at which the schedule runs on day
// (a midnight).
func (sc schedule) slotsOn(day time.Time) []time.Time {
	at := func(hour int) time.Time {
		return day.Add(time.Duration(hour)*time.Hour + time.Duration(sc.minute)*time.Minute)
	}
	week := (day.Day() - 1) / 7
	switch sc.unit {
	case platform.FrequencyHour:
		var out []time.Time
		for h := range 24 {
			if (h-sc.hour+24)%24%sc.every == 0 {
				out = append(out, at(h))
			}
		}
		return out
	case platform.FrequencyDay:
		if (day.Day()-1)%sc.every != 0 {
			return nil
		}
	case platform.FrequencyWeek:
		if int(day.Weekday()) != sc.day || week%sc.every != 0 {
			return nil
		}
	case platform.FrequencyMonth:
		if int(day.Weekday()) != sc.day || week != sc.week || (int(day.Month())-1)%sc.every != 0 {
			return nil
		}
	}
	return []time.Time{at(sc.hour)}
}
